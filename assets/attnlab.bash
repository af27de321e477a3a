# bash completion for attnlab(1): its options, their values, and .lesson
# files (with folders to walk into) where a lesson goes. Installed by
# `make install` as share/bash-completion/completions/attnlab, which
# bash-completion loads the first time attnlab is completed; it needs
# nothing from bash-completion itself.

# _attnlab_files WORD SUFFIX...: folders, and files ending in one of the
# suffixes (none: folders only), that start with WORD; names with spaces
# are kept whole.
_attnlab_files() {
    local IFS=$'\n' cur=$1 f s
    shift
    compopt -o filenames 2>/dev/null
    COMPREPLY+=( $(compgen -d -- "$cur") )
    [ $# -gt 0 ] || return 0
    for f in $(compgen -f -- "$cur"); do
        [ -d "$f" ] && continue
        for s in "$@"; do
            case $f in *"$s") COMPREPLY+=( "$f" ); break ;; esac
        done
    done
}

# _attnlab_values OPTION WORD: the values OPTION takes that start with WORD;
# false when OPTION takes no value.
_attnlab_values() {
    local opt=$1 cur=$2
    case $opt in
        --format) COMPREPLY=( $(compgen -W 'png svg pdf' -- "$cur") ) ;;
        --theme) COMPREPLY=( $(compgen -W 'light dark' -- "$cur") ) ;;
        --scale) COMPREPLY=( $(compgen -W '1 2 3 4' -- "$cur") ) ;;
        --cmap) COMPREPLY=( $(compgen -W 'viridis cividis plasma magma YlOrRd Blues RdBu' -- "$cur") ) ;;
        --size) COMPREPLY=( $(compgen -W '1280x720 1920x1080 1280x800 3840x2160' -- "$cur") ) ;;
        --stage) COMPREPLY=( $(compgen -W '1 2 3 4 5 6 7 8 9' -- "$cur") ) ;;
        --export|--shots) _attnlab_files "$cur" ;;
        --model)                                # a folder, or a name among the user's models
            _attnlab_files "$cur"
            local mine=${XDG_DATA_HOME:-$HOME/.local/share}/attnlab/models
            [ -d "$mine" ] && COMPREPLY+=( $(cd "$mine" && compgen -d -- "$cur") ) ;;
        --font) _attnlab_files "$cur" .ttf .otf .ttc .TTF .OTF .TTC ;;
        *) return 1 ;;
    esac
    return 0
}

_attnlab() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} i
    COMPREPLY=()
    # after --, only lessons
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [ "${COMP_WORDS[i]}" = -- ]; then _attnlab_files "$cur" .lesson; return 0; fi
    done
    # --opt=VALUE: one word, or three where "=" breaks words (bash's default)
    if [[ $cur == --*=* ]]; then
        if _attnlab_values "${cur%%=*}" "${cur#*=}"; then
            COMPREPLY=( "${COMPREPLY[@]/#/${cur%%=*}=}" )
            return 0
        fi
    elif [ "$cur" = = ] && [[ $prev == --* ]]; then
        _attnlab_values "$prev" "" && return 0
    elif [ "$prev" = = ] && [ "$COMP_CWORD" -gt 2 ]; then
        _attnlab_values "${COMP_WORDS[COMP_CWORD-2]}" "$cur" && return 0
    fi
    # the value of the option before
    [ "$COMP_CWORD" -gt 1 ] && _attnlab_values "$prev" "$cur" && return 0
    if [[ $cur == -* ]]; then
        COMPREPLY=( $(compgen -W '--check --dump --list --export --stage --format --size --scale --theme --cmap
                                  --font --shots --model --help --version' -- "$cur") )
        return 0
    fi
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [ "${COMP_WORDS[i]}" = --list ]; then _attnlab_files "$cur"; return 0; fi
        [ "${COMP_WORDS[i]}" = --model ] && return 0     # then the words are the sentence
    done
    _attnlab_files "$cur" .lesson
    return 0
}
complete -F _attnlab attnlab
